package okhttp3

class CallTest {
    data class Request(val path: String)

    fun run() {
        val request = Request("/")
    }
}
