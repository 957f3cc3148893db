package okhttp3

interface Callback {
    fun onResponse(call: RealCall)
}
