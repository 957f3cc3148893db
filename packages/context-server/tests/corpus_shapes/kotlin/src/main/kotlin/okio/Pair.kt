package okio

data class Pair(val left: Int, val right: Int)
