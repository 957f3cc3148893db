package com.shop.util;

public @interface Entity {
}
