package org.acme.jms;

/** The JMS flavour of an illegal state, as in a messaging API. */
public class IllegalStateException extends JmsException {
    public IllegalStateException(String message) { super(message); }
}
