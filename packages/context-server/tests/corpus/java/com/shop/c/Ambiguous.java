package com.shop.c;

public class Ambiguous {
    private Config config;
}
