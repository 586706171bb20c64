package dev.loupe.engine.api.util;

import java.lang.invoke.MethodHandle;
import java.lang.reflect.Array;
import java.util.Optional;

/**
 * A C function of the process's default libraries (libc) as a {@link MethodHandle}, linked through
 * {@code java.lang.foreign} (JDK 22+) by reflection, since Loupe compiles for 17. Used where a thread or the
 * process changes something only a system call can (a thread's priority, the environment before GTK starts).
 */
public final class NativeDowncall {
  private NativeDowncall() {}

  /**
   * The downcall handle of {@code symbol} returning {@code result} and taking {@code args}, each named by its
   * {@code java.lang.foreign.ValueLayout} constant ({@code "JAVA_INT"}, {@code "ADDRESS"}, ...); null when the
   * runtime has no such API (JDK 17-21), the symbol is not there, or linking fails.
   */
  public static MethodHandle link(String symbol, String result, String... args) {
    try {
      Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
      Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
      Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
      Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
      Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
      Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
      Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");
      Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
      Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
      Optional<?> address = (Optional<?>) lookupClass.getMethod("find", String.class).invoke(lookup, symbol);
      if (address.isEmpty()) {
        return null;
      }
      Object layouts = Array.newInstance(layoutClass, args.length);
      for (int i = 0; i < args.length; i++) {
        Array.set(layouts, i, valueLayoutClass.getField(args[i]).get(null));
      }
      Object descriptor = descriptorClass.getMethod("of", layoutClass, layouts.getClass())
          .invoke(null, valueLayoutClass.getField(result).get(null), layouts);
      Object noOptions = Array.newInstance(optionClass, 0);
      return (MethodHandle) linkerClass.getMethod("downcallHandle", segmentClass, descriptorClass,
          noOptions.getClass()).invoke(linker, address.get(), descriptor, noOptions);
    } catch (Throwable e) { // JDK 17-21 (no such API, or a preview one), native access refused
      return null;
    }
  }
}
