package com.shop.util;

public final class Money {
    public static final Money ZERO = new Money();
}
