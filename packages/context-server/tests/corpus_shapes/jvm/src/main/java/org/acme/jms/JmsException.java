package org.acme.jms;

public class JmsException extends RuntimeException {
    public JmsException(String message) { super(message); }
}
