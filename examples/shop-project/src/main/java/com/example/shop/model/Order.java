package com.example.shop.model;

import java.util.List;

/**
 * A customer's order. An Invoice is produced later by the billing system (not in this project).
 */
public class Order {
    private final String number;
    private final Customer customer;
    private final List<OrderLine> lines;

    public Order(String number, Customer customer, List<OrderLine> lines) {
        this.number = number;
        this.customer = customer;
        this.lines = List.copyOf(lines);
    }

    public String number() {
        return number;
    }

    public Customer customer() {
        return customer;
    }

    public List<OrderLine> lines() {
        return lines;
    }

    /** Status of an order; nested types are resolved too. */
    public enum Status { OPEN, PAID, SHIPPED }
}
