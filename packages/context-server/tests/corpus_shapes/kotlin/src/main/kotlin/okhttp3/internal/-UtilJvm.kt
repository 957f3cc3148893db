@file:JvmName("Util")

package okhttp3.internal

import java.io.Closeable

val EMPTY_HEADERS: Map<String, String> = emptyMap()

fun Closeable.closeQuietly() {
    try {
        close()
    } catch (e: RuntimeException) {
        throw e
    }
}
