package com.shop.kt

enum class Mode { Helper, Strings }

class Billing {
    val invoice = InvoiceFactory.make()
    val lines: List<InvoiceLine> = emptyList()
    fun <Money> keep(value: Money): Money = value
}
