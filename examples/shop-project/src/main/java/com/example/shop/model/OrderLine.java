package com.example.shop.model;

/** One product on an order. */
public record OrderLine(int lineNo, String sku, int quantity, Money unitPrice) {
}
