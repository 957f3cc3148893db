package com.shop.model;

import java.util.List;

/**
 * An order. Mentions Invoice and Refund only in this comment.
 */
public class Order {
    private List<LineItem> items; // LineItem is in this package; Payment is only named here
    private Customer customer;
    private String note = "Payment pending for Product";
    private String help = """
        Refund policy: see Invoice
        """;
    private char grade = 'P';

    public enum Status { OPEN, CLOSED }

    public static class Builder {
        private Status status = Status.OPEN;
    }
}
