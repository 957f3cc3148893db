package okio

class Result(val bytes: Long)
