package okhttp3

/** A factory named like the class it builds, as Kotlin libraries often write. */
fun Headers(vararg names: String): Headers = Headers(names.toList())
