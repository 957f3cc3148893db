package com.shop.c;

import com.shop.b.Config;

public class Explicit {
    private Config config;
}
