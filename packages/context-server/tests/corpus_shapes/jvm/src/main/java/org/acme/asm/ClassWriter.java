package org.acme.asm;

import org.acme.cron.CronField;

/**
 * Writes classes; see {@link CronField} for the schedule format.
 */
public class ClassWriter {
    Type type;
    Type other;
    Context context;
}
