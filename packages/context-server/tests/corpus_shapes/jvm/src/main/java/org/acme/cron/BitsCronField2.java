package org.acme.cron;

class BitsCronField2 extends CronField {
    BitsCronField2(Type type) { super(type); }
}
