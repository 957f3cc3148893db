package org.acme.web;

import org.acme.jms.IllegalStateException;
import org.acme.core.Engine;

class Handler {
    Engine engine;
    void fail() { throw new IllegalStateException("explicitly imported"); }
}
