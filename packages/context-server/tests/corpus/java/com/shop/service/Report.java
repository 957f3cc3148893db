package com.shop.service;

import com.shop.model.Order;

public class Report<T> {
    private Order.Status status;
    private Order.Builder builder;
    private T payload;
}
