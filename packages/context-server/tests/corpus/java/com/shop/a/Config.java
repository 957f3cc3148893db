package com.shop.a;

public class Config {
}
