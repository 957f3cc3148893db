package org.acme.text;

public final class Character {}
