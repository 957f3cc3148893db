package org.acme.model

final case class Option(name: String)
