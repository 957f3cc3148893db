package com.shop.kt

import com.shop.model.Order
import com.shop.util.Money as Cash

// Customer is only named in this comment
class Invoice(val order: Order, val total: Cash) {
    val label = "rate ${Tax.RATE} for Customer"
}

object InvoiceFactory {
    fun make(): Invoice = TODO()
}

data class InvoiceLine(val text: String = "Product")
