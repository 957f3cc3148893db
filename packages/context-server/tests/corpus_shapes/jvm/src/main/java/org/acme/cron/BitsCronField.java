package org.acme.cron;

final class BitsCronField extends CronField {
    private BitsCronField(Type type) { super(type); }   // CronField.Type, inherited
    static BitsCronField seconds() { return new BitsCronField(Type.SECOND); }
}
