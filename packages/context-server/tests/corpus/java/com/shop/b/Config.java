package com.shop.b;

public class Config {
}
