package org.acme.convert;

import com.google.protobuf.util.JsonFormat;
import org.jspecify.annotations.Nullable;
import android.net.DnsResolver;

class ProtobufConverter {
    private final JsonFormat.@Nullable Parser parser = null;     // protobuf's, not org.acme.format.Parser
    private final JsonFormat.Printer printer = null;
    private final DnsResolver.Callback callback = null;           // android's, not org.acme.net.Callback
    private final android.net.DnsResolver.Callback other = null;
}
