package com.example.shop.model;

import java.math.BigDecimal;

/** An amount in one currency. */
public record Money(BigDecimal amount, String currency) {
    public Money plus(Money other) {
        return new Money(amount.add(other.amount()), currency);
    }
}
