package org.acme.jms;

public class JmsTemplate {
    void send() {
        // same package: the project's IllegalStateException
        throw new IllegalStateException("closed");
    }
}
