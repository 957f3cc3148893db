package org.acme.asm;

public final class Type {}
