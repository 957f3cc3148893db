package org.acme.format;

public interface Parser<T> { T parse(String text); }
