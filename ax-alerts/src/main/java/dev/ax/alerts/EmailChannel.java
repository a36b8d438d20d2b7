package dev.ax.alerts;

import dev.ax.domain.time.AxClock;
import jakarta.mail.Message;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.util.Date;
import java.util.Properties;

/**
 * E-mail over SMTP (Angus Mail): STARTTLS or implicit TLS, optional authentication, timeouts on
 * connect, read and write so that a dead mail server costs one delivery attempt, never a thread.
 */
final class EmailChannel implements Channel {
    static final int TIMEOUT_MILLIS = 10_000;

    private final ChannelConfig.Email config;
    private final AxClock clock;
    private final Session session;

    EmailChannel(ChannelConfig.Email config, AxClock clock) {
        this.config = config;
        this.clock = clock;
        Properties p = new Properties();
        String proto = config.ssl() ? "smtps" : "smtp";
        p.put("mail.transport.protocol", proto);
        p.put("mail." + proto + ".host", config.host());
        p.put("mail." + proto + ".port", Integer.toString(config.port()));
        p.put("mail." + proto + ".auth", Boolean.toString(config.username() != null));
        p.put("mail." + proto + ".connectiontimeout", Integer.toString(TIMEOUT_MILLIS));
        p.put("mail." + proto + ".timeout", Integer.toString(TIMEOUT_MILLIS));
        p.put("mail." + proto + ".writetimeout", Integer.toString(TIMEOUT_MILLIS));
        if (config.tls() && !config.ssl()) {
            p.put("mail.smtp.starttls.enable", "true");
            p.put("mail.smtp.starttls.required", "true");
        }
        if (config.ssl() || config.tls()) {
            p.put("mail." + proto + ".ssl.checkserveridentity", "true");
        }
        this.session = Session.getInstance(p);
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public SendResult send(Outgoing alert) {
        try {
            MimeMessage m = new MimeMessage(session);
            m.setFrom(new InternetAddress(config.from()));
            for (String to : config.to()) {
                m.addRecipient(Message.RecipientType.TO, new InternetAddress(to));
            }
            m.setSubject(AlertText.subject(alert.content()), "UTF-8");
            m.setText(AlertText.plain(alert.content()), "UTF-8");
            m.setSentDate(Date.from(clock.now()));
            // Lets a mail filter thread or drop repeats of one alert (a retried delivery may arrive twice).
            m.setHeader("X-AX-Alert", alert.dedupeKey());
            try (Transport t = session.getTransport()) {
                if (config.username() != null) {
                    t.connect(config.host(), config.port(), config.username(), config.password());
                } else {
                    t.connect();
                }
                t.sendMessage(m, m.getAllRecipients());
            }
            return SendResult.ok("mail accepted by " + config.host());
        } catch (MessagingException | RuntimeException e) {
            return SendResult.failed(Secrets.scrub(rootMessage(e), config.secrets()));
        }
    }

    private static String rootMessage(Throwable e) {
        String top = e.toString();
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == e ? top : top + " (" + root + ")";
    }
}
