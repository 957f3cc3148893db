package com.shop.a;

public class App {
    private Config config;
}
