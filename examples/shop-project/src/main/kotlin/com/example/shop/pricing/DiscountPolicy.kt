package com.example.shop.pricing

import com.example.shop.model.Customer

/** How much an order is discounted. */
sealed interface DiscountPolicy {
    fun percentFor(customer: Customer): Int

    object NoDiscount : DiscountPolicy {
        override fun percentFor(customer: Customer) = 0
    }

    data class Loyal(val percent: Int) : DiscountPolicy {
        override fun percentFor(customer: Customer) = percent
    }
}
