/* instrmap: to be written. */
