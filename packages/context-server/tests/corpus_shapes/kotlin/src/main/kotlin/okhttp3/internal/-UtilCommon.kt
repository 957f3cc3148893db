package okhttp3.internal

fun Array<AutoCloseable>.closeQuietly() = forEach { it.close() }

internal fun String.isSensitiveHeader(): Boolean = equals("Authorization", ignoreCase = true)
