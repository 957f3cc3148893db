package okhttp3

import okhttp3.internal.closeQuietly
import okhttp3.internal.isSensitiveHeader as sensitive

class RealCall(private val request: Request) {
    fun execute(): Result<String> {
        val pair = Pair(1, 2)                    // kotlin.Pair, not okio.Pair
        check(request.url.isNotEmpty()) { "url" }
        if ("Cookie".sensitive()) throw IllegalStateException("no")
        return Result.success(pair.first.toString())   // kotlin.Result, not okio.Result
    }
}
