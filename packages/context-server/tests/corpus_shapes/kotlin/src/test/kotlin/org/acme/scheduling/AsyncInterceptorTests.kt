package org.acme.scheduling

class AsyncInterceptorTests {

	@Test
	fun returnsNothing() {
		val subject = AsyncInterceptor(null)

		// a local class the Kotlin grammar misreads; C is still this file's own name
		class C { @Async fun nothing(): Unit? = null }
		val call = mock<MethodCall>()
		given(call.method).willReturn(C::class.java.getDeclaredMethod("nothing"))
	}
}
