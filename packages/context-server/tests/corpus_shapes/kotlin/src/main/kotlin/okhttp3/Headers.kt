package okhttp3

class Headers(private val names: List<String>) {
    val size: Int get() = names.size
}
