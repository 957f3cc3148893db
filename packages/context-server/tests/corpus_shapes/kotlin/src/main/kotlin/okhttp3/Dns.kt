package okhttp3

import android.net.DnsResolver

class Dns {
    var callback: DnsResolver.Callback<List<String>>? = null   // android's, not okhttp3.Callback
    var fullyQualified: android.net.DnsResolver.Callback<Int>? = null
}
