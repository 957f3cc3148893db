package org.acme.net;

public interface Callback {}
