package okhttp3

class Dispatcher {
    val headers: Headers = Headers("Accept")
}
