package com.shop.kt

import com.shop.model.LineItem
import com.shop.sc.Shape

typealias Lines = Map<String, List<LineItem>>

sealed interface Report {
    data class Monthly(val lines: Lines) : Report
    object Empty : Report
}

fun render(report: Report): String = when (report) {
    is Report.Monthly -> "Invoice ${report.lines.size}"
    Report.Empty -> "Tax"
}

class Drawing(val shape: Shape)
