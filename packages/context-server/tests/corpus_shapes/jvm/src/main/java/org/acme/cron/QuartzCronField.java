package org.acme.cron;

final class QuartzCronField extends BitsCronField2 {
    QuartzCronField(Type type) { super(type); }   // inherited two levels up
}
