package org.acme.cron;

abstract class CronField {
    protected enum Type { SECOND, MINUTE }
    protected final Type type;
    protected CronField(Type type) { this.type = type; }
}
