package dev.bpf4j.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Maven user gets (issue 25, point 2): the BOM manages every library module at the project's
 * version, README's dependency snippet uses the poms' coordinates, and each library jar names its
 * module and ships sources and javadoc beside it.
 */
class ArtifactsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** Modules that are not libraries: no BOM entry, no -sources/-javadoc jar. */
    private static final Set<String> NOT_LIBRARIES = Set.of("bom", "it-tests", "bench");

    private static Document pom(Path dir) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(dir.resolve("pom.xml").toFile());
    }

    /** The text of the first direct child {@code name} of {@code e}, or null. */
    private static String child(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) return c.getTextContent().trim();
        }
        return null;
    }

    private static Element childElement(Element e, String name) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(name)) return c;
        }
        return null;
    }

    /** Library module directory -> its artifactId, from the parent's module list. */
    private static Map<String, String> libraries() throws Exception {
        Map<String, String> out = new LinkedHashMap<>();
        NodeList modules = pom(ROOT).getElementsByTagName("module");
        for (int i = 0; i < modules.getLength(); i++) {
            String dir = modules.item(i).getTextContent().trim();
            if (NOT_LIBRARIES.contains(dir)) continue;
            out.put(dir, child(pom(ROOT.resolve(dir)).getDocumentElement(), "artifactId"));
        }
        return out;
    }

    @Test
    void bomManagesEveryLibraryAtTheProjectVersion() throws Exception {
        Element parent = pom(ROOT).getDocumentElement();
        Element bom = pom(ROOT.resolve("bom")).getDocumentElement();
        assertThat(childElement(bom, "parent")).as("the BOM inherits nothing").isNull();
        assertThat(child(bom, "groupId")).isEqualTo(child(parent, "groupId"));
        assertThat(child(bom, "version")).isEqualTo(child(parent, "version"));
        assertThat(child(bom, "packaging")).isEqualTo("pom");
        List<String> managed = new ArrayList<>();
        NodeList deps = childElement(childElement(bom, "dependencyManagement"), "dependencies").getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            assertThat(child(d, "groupId")).isEqualTo("dev.bpf4j");
            assertThat(child(d, "version")).isEqualTo("${project.version}");
            managed.add(child(d, "artifactId"));
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(libraries().values());
    }

    @Test
    void readmeSnippetUsesThePomsCoordinates() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String version = child(pom(ROOT).getDocumentElement(), "version");
        assertThat(readme).contains("<groupId>dev.bpf4j</groupId><artifactId>bpf4j-bom</artifactId><version>" + version + "</version>");
        for (String a : List.of("bpf4j-core", "bpf4j-interp", "bpf4j-jit-x86")) {
            assertThat(libraries().values()).contains(a);
            assertThat(readme).contains("<dependency><groupId>dev.bpf4j</groupId><artifactId>" + a + "</artifactId></dependency>");
        }
    }

    @Test
    void everyLibraryJarNamesItsModuleAndShipsSourcesAndJavadoc() throws Exception {
        String version = child(pom(ROOT).getDocumentElement(), "version");
        Set<String> names = new HashSet<>();
        for (Map.Entry<String, String> m : libraries().entrySet()) {
            Path target = ROOT.resolve(m.getKey()).resolve("target");
            Path jar = target.resolve(m.getValue() + "-" + version + ".jar");
            Assumptions.assumeTrue(Files.exists(jar), () -> "skipped: " + jar + " is not built (run mvn package or verify first)");
            try (JarFile j = new JarFile(jar.toFile())) {
                String name = j.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
                assertThat(name).as(jar.toString()).matches("dev\\.bpf4j\\.[a-z]+");
                assertThat(names.add(name)).as("module name " + name + " used twice").isTrue();
            }
            for (String classifier : List.of("sources", "javadoc")) {
                Path extra = target.resolve(m.getValue() + "-" + version + "-" + classifier + ".jar");
                assertThat(extra).as(classifier + " jar of " + m.getValue()).exists();
            }
        }
        assertThat(names).hasSize(libraries().size());
    }
}
