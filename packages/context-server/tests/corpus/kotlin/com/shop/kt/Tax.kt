package com.shop.kt

object Tax {
    const val RATE = 1
}
