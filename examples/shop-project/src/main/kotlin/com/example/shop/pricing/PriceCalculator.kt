package com.example.shop.pricing

import com.example.shop.model.Money
import com.example.shop.model.Order
import java.math.BigDecimal

/** Prices an order: a Kotlin class using the Java model. */
class PriceCalculator(private val policy: DiscountPolicy = DiscountPolicy.NoDiscount) {
    fun total(order: Order): Money {
        val gross = order.lines().fold(BigDecimal.ZERO) { sum, line ->
            sum + line.unitPrice().amount() * BigDecimal(line.quantity())
        }
        val percent = policy.percentFor(order.customer())
        val net = gross * BigDecimal(100 - percent) / BigDecimal(100)
        return Money(net, "EUR")
    }
}
