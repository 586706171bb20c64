package dev.loupe.ca.trust;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the Firefox profiles of a user that have an NSS database: those listed in {@code
 * profiles.ini} and any {@code *.default*} directory beside it, under the regular ({@code
 * ~/.mozilla/firefox}), snap ({@code ~/snap/firefox/common/.mozilla/firefox}) and flatpak ({@code
 * ~/.var/app/org.mozilla.firefox/.mozilla/firefox}) locations. Only reads files; stateless.
 */
public final class FirefoxProfiles {
  /** One profile with a {@code cert9.db}. */
  public record Profile(String name, Path directory, String packaging) {
    /** Checks for nulls. */
    public Profile {
      requireNonNull(name, "name");
      requireNonNull(directory, "directory");
      requireNonNull(packaging, "packaging");
    }

    /** "Firefox — default-release", "Firefox (snap) — default". */
    public String displayName() {
      return "Firefox" + (packaging.isEmpty() ? "" : " (" + packaging + ")") + " — " + name;
    }
  }

  private FirefoxProfiles() {}

  /** The profiles under {@code home}, in profiles.ini order, then directory order; no duplicates. */
  public static List<Profile> find(Path home) {
    requireNonNull(home, "home");
    Map<Path, Profile> found = new LinkedHashMap<>();
    Map<String, Path> roots = new LinkedHashMap<>();
    roots.put("", home.resolve(".mozilla/firefox"));
    roots.put("snap", home.resolve("snap/firefox/common/.mozilla/firefox"));
    roots.put("flatpak", home.resolve(".var/app/org.mozilla.firefox/.mozilla/firefox"));
    for (Map.Entry<String, Path> root : roots.entrySet()) {
      Path dir = root.getValue();
      if (!Files.isDirectory(dir)) {
        continue;
      }
      for (Profile listed : listed(dir, root.getKey())) {
        add(found, listed);
      }
      try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, "*.default*")) {
        List<Path> sorted = new ArrayList<>();
        children.forEach(sorted::add);
        sorted.sort(null);
        for (Path child : sorted) {
          String fileName = child.getFileName().toString();
          String name = fileName.substring(fileName.indexOf('.') + 1);
          add(found, new Profile(name, child, root.getKey()));
        }
      } catch (IOException e) {
        // an unreadable directory has no profiles we could use
      }
    }
    return List.copyOf(found.values());
  }

  private static void add(Map<Path, Profile> found, Profile profile) {
    if (!Files.isRegularFile(profile.directory().resolve("cert9.db"))) {
      return;
    }
    Path key;
    try {
      key = profile.directory().toRealPath();
    } catch (IOException e) {
      key = profile.directory().toAbsolutePath().normalize();
    }
    found.putIfAbsent(key, profile);
  }

  /** The [Profile*] sections of {@code root/profiles.ini}. */
  private static List<Profile> listed(Path root, String packaging) {
    Path ini = root.resolve("profiles.ini");
    List<Profile> profiles = new ArrayList<>();
    if (!Files.isRegularFile(ini)) {
      return profiles;
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(ini, StandardCharsets.UTF_8);
    } catch (IOException | RuntimeException e) {
      return profiles;
    }
    Map<String, String> section = null;
    List<Map<String, String>> sections = new ArrayList<>();
    for (String raw : lines) {
      String line = raw.strip();
      if (line.startsWith("[")) {
        section = line.regionMatches(true, 0, "[Profile", 0, 8) ? new LinkedHashMap<>() : null;
        if (section != null) {
          sections.add(section);
        }
      } else if (section != null && line.contains("=")) {
        int eq = line.indexOf('=');
        section.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
      }
    }
    for (Map<String, String> s : sections) {
      String path = s.get("Path");
      if (path == null || path.isEmpty()) {
        continue;
      }
      Path dir = "0".equals(s.get("IsRelative")) ? Path.of(path) : root.resolve(path);
      String name = s.getOrDefault("Name", dir.getFileName().toString());
      profiles.add(new Profile(name, dir, packaging));
    }
    return profiles;
  }
}
