package org.acme.asm;

final class Context {}
