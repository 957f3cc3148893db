package org.acme.cli

import org.acme.cli.syntax._

class OptionParser {
  def parse[A: Read](args: Seq[String]): Option[A] =     // scala.Option, not org.acme.model.Option
    args.headOption.filter(_.flag).map(implicitly[Read[A]].read)
}
