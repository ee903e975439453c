/* symbolize: to be written. */
