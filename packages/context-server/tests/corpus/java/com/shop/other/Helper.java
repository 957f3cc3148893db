package com.shop.other;

public class Helper {
}
