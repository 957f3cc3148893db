package org.acme.core;

import java.util.List;

public class Engine {
    private final List<String> names = List.of();

    void start() {
        if (names.isEmpty()) {
            throw new IllegalStateException("no names"); // java.lang, not org.acme.jms
        }
        StringBuilder text = new StringBuilder();
        Character first = Character.valueOf('a');
    }
}
