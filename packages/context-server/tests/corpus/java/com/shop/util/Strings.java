package com.shop.util;

public final class Strings {
    public static String join(String... parts) {
        return String.join(",", parts);
    }
}
