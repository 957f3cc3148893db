package okhttp3

import okhttp3.internal.EMPTY_HEADERS

class Request(val url: String) {
    val headers = EMPTY_HEADERS
}
