package com.shop.model;

import com.shop.catalog.Product;

public record LineItem(Product product, int quantity) {
}
