package org.acme.spel;

/** A one-letter class in another module's tests. */
public class C {}
